/**
 * The `mountNamespace` guard: inside a fresh mount namespace (`unshare --mount`), a POSIX shell
 * builds a new root on a small tmpfs holding only what a run needs, pivots into it and unmounts
 * the host's root. Nothing else of the host's filesystem exists for the run, so in particular
 * no Unix socket at a file path (which neither the network namespace nor Node's permission
 * model covers) can be reached.
 *
 * The new root holds: `/usr` and the host's top-level `bin`/`lib*`/`sbin` (symlinks or
 * read-only binds), the Node binary's directory (read-only), `/dev/{null,zero,random,urandom}`,
 * a fresh `/proc` (of the run's PID namespace), the work directory (read-write) and the
 * readable paths (read-only), each at its host path. The root itself is then remounted
 * read-only. Uses util-linux `mount`, `umount`, `pivot_root` and coreutils `mkdir`, `ln`.
 */
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'

/**
 * The setup script; `$0` is a label, `$1` the mount point, `$2` the working directory, then
 * operations (`link TARGET PATH`, `ro PATH`, `rw PATH`, `dev PATH`), `--`, the command.
 */
export const script = `set -eu
path=$PATH; PATH=/usr/sbin:/usr/bin:/sbin:/bin
j=$1; cwd=$2; shift 2
mount -t tmpfs -o size=64k,mode=755,nosuid,nodev mtrl-jail "$j"
while [ "$1" != -- ]; do
  case $1 in
    link) mkdir -p "$j\${3%/*}"; ln -s "$2" "$j$3"; shift 3 ;;
    ro) if [ -d "$2" ]; then mkdir -p "$j$2"; else mkdir -p "$j\${2%/*}"; : > "$j$2"; fi; mount --bind -o ro "$2" "$j$2"; shift 2 ;;
    rw) mkdir -p "$j$2"; mount --bind "$2" "$j$2"; shift 2 ;;
    dev) mkdir -p "$j\${2%/*}"; : > "$j$2"; mount --bind "$2" "$j$2"; shift 2 ;;
    *) echo "mtrl-jail: unknown operation $1" >&2; exit 125 ;;
  esac
done
shift
mkdir -p "$j/proc" "$j/.old"
mount -t proc -o nosuid,nodev,noexec proc "$j/proc"
cd "$j"
pivot_root . .old
umount -l /.old
rmdir /.old
mount -o remount,ro,bind /
cd "$cwd"
unset PWD OLDPWD
PATH=$path
exec "$@"
`

/** Where each run mounts its new root: an empty directory (the tmpfs covers it in the run's namespace only). */
export const mountPoint = (): string => path.join(tmpdir(), 'mtrl-swe-mnt')

/** Creates the mount point if it is missing (another process may have removed it). */
export const ensureMountPoint = (dir: string): void => {
  if (!fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true, mode: 0o755 })
}

const under = (p: string, dirs: ReadonlyArray<string>): boolean => dirs.some((d) => p === d || p.startsWith(d + path.sep))

/** The operations that lay out the new root (host paths), for `script`. */
export const operations = (writeDir: string, readPaths: ReadonlyArray<string>): ReadonlyArray<string> => {
  const ops: string[] = ['ro', '/usr']
  const bound = ['/usr']
  for (const name of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
    const p = `/${name}`
    let st: fs.Stats
    try {
      st = fs.lstatSync(p)
    } catch {
      continue
    }
    if (st.isSymbolicLink()) ops.push('link', fs.readlinkSync(p), p)
    else if (st.isDirectory()) {
      ops.push('ro', p)
      bound.push(p)
    }
  }
  const nodeDir = path.dirname(fs.realpathSync(process.execPath))
  if (!under(nodeDir, bound)) ops.push('ro', nodeDir)
  for (const d of ['null', 'zero', 'random', 'urandom']) ops.push('dev', `/dev/${d}`)
  ops.push('rw', writeDir)
  for (const r of readPaths) ops.push('ro', r)
  return ops
}

/** The command prefix that runs `rest` in the new root: `/bin/sh -c script ...ops -- rest`. */
export const wrap = (writeDir: string, readPaths: ReadonlyArray<string>, mount: string): ReadonlyArray<string> => [
  '/bin/sh',
  '-c',
  script,
  'mtrl-jail',
  mount,
  writeDir,
  ...operations(writeDir, readPaths),
  '--'
]
