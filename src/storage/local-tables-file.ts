/**
 * The file of the local tables in the data folder (`HIGHWATER_LOCAL_TABLES=sqlite`). Its own module
 * so that code which only needs the name (the storage factory, the mover, the CLI) does not load
 * the SQLite adapter and with it better-sqlite3, a native module the Functions app does not carry.
 */
export const LOCAL_TABLES_FILE = 'tables.db';
