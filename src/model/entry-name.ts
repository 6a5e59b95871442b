/**
 * The archive entry name a declared path refers to: separators normalised to `/`, empty and
 * `.` segments dropped. `runtimes\\win-x64\\./App.exe` → `runtimes/win-x64/App.exe`.
 */
export function entryNameOf(declaredPath: string): string {
  return declaredPath
    .split(/[\\/]/)
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/')
}
