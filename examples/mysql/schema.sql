-- The tables of the example, for MariaDB 10.5+ / MySQL 8.0+ (utf8mb4).
-- Source database `shop`:
CREATE TABLE orders (
  id bigint unsigned AUTO_INCREMENT PRIMARY KEY,
  email varchar(255) NOT NULL,
  total decimal(65,30) NOT NULL,
  attachment blob,
  details json,
  cancelled boolean NOT NULL DEFAULT 0,
  updated_at timestamp(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
  INDEX (updated_at, id)
) CHARACTER SET utf8mb4;
CREATE TABLE payments (
  id bigint unsigned AUTO_INCREMENT PRIMARY KEY,
  order_id bigint unsigned NOT NULL,
  amount decimal(19,4) NOT NULL
) CHARACTER SET utf8mb4;

-- Target database `erp`:
CREATE TABLE sales_orders (
  shop_order_id bigint unsigned PRIMARY KEY,
  customer_email varchar(255) NOT NULL,
  total decimal(65,30) NOT NULL,
  attachment blob,
  details json,
  source_modified_at datetime(6)
) CHARACTER SET utf8mb4;
CREATE TABLE payments (
  shop_payment_id bigint unsigned PRIMARY KEY,
  shop_order_id bigint unsigned NOT NULL REFERENCES sales_orders (shop_order_id),
  amount decimal(19,4) NOT NULL
) CHARACTER SET utf8mb4;
