import fs from 'node:fs';
import path from 'node:path';

/**
 * Files the built code reads beside its JavaScript, as paths relative to the project and to
 * `dist/` alike: tsc compiles TypeScript only, so the build copies these next to the modules that
 * read them, and `dist/` runs without the sources.
 */
export const BUILD_DATA_FILES: readonly string[] = [
  // The dead-letter mover's default rules, read next to src/mover/default-rules.js.
  'src/mover/default-rules.yaml',
];

/** A data file the build cannot copy: the message names the missing file. */
export class BuildDataFileError extends Error {
  override readonly name = 'BuildDataFileError';
}

/**
 * Copies {@link BUILD_DATA_FILES} from `projectDir` into `distDir`, creating folders as needed.
 * Returns the files written (absolute paths).
 * @throws BuildDataFileError when a data file is missing from the project.
 */
export function copyBuildDataFiles(projectDir: string, distDir: string): string[] {
  return BUILD_DATA_FILES.map((relative) => {
    const from = path.join(projectDir, relative);
    if (!fs.existsSync(from)) throw new BuildDataFileError(`${from} is missing: the build copies it into ${distDir}`);
    const to = path.join(distDir, relative);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
    return to;
  });
}
