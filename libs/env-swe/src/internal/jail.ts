/**
 * The `mountNamespace` guard: inside a fresh mount namespace (`unshare --mount`), one
 * `mount -a` lays out a new root on a small tmpfs holding only what a run needs, then the run
 * pivots into it and unmounts the host's root. Nothing else of the host's filesystem exists for
 * the run, so in particular no Unix socket at a file path (which neither the network namespace
 * nor Node's permission model covers) can be reached.
 *
 * The new root holds, each at its host path: `/usr` and the host's top-level `bin`/`lib*`/`sbin`
 * (read-only binds of what they are or point to), the Node binary's directory (read-only), a
 * fresh `/proc` (of the run's PID namespace), the work directory (read-write) and the readable
 * directories (read-only). The root itself is read-only; there is no `/dev`, `/etc`, `/run`,
 * `/home`, and `/tmp` holds only the paths down to the run's directories.
 *
 * The layout is an fstab file the host writes per run (in a private directory, removed after
 * the run), so the setup costs four processes (`sh`, `mount -a`, `pivot_root`, `umount`) instead
 * of one per mount. util-linux >= 2.35 (`X-mount.mkdir`).
 */
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'

/** The setup script: `$1` the mount point, `$2` the fstab, `$3` the working directory, then the command. */
export const script = `set -eu
j=$1; f=$2; cwd=$3; shift 3
path=$PATH; PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -a -T "$f"
cd "$j"
pivot_root . .old
umount -l /.old
cd "$cwd"
unset PWD OLDPWD
PATH=$path
exec "$@"
`

/** Where each run mounts its new root (the tmpfs covers it in the run's namespace only). */
export const mountPoint = (): string => path.join(tmpdir(), 'mtrl-swe-mnt')

/** fstab's escapes for a path (space, tab, newline, backslash). */
const mangle = (p: string): string => p.replace(/[\\ \t\n]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`)

const under = (p: string, dirs: ReadonlyArray<string>): boolean => dirs.some((d) => p === d || p.startsWith(d + path.sep))

/** The new root's layout as fstab lines, mounted in order by `mount -a`. */
export const fstab = (mount: string, writeDir: string, readDirs: ReadonlyArray<string>): string => {
  const line = (source: string, target: string, type: string, options: string): string =>
    `${mangle(source)} ${mangle(path.join(mount, target))} ${type} ${options} 0 0`
  const ro = (dir: string, at: string = dir): string => line(dir, at, 'none', 'bind,ro,X-mount.mkdir')
  const lines = [line('mtrl-jail', '/', 'tmpfs', 'size=64k,mode=755,nosuid,nodev'), ro('/usr')]
  const bound = ['/usr']
  for (const name of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
    let real: string
    try {
      real = fs.realpathSync(`/${name}`)
    } catch {
      continue
    }
    if (!under(real, bound)) bound.push(real)
    lines.push(ro(real, `/${name}`))
  }
  const nodeDir = path.dirname(fs.realpathSync(process.execPath))
  if (!under(nodeDir, bound)) lines.push(ro(nodeDir))
  lines.push(line(writeDir, writeDir, 'none', 'bind,X-mount.mkdir'))
  for (const r of readDirs) lines.push(ro(r))
  lines.push(
    line('proc', '/proc', 'proc', 'nosuid,nodev,noexec,X-mount.mkdir'),
    line('mtrl-old', '/.old', 'tmpfs', 'size=4k,mode=000,X-mount.mkdir'),
    `${mangle(mount)} ${mangle(mount)} none bind,remount,ro 0 0`
  )
  return `${lines.join('\n')}\n`
}

let counter = 0
let checked: string | undefined

/**
 * Writes a run's fstab into the host's private directory `<tmpdir>/mtrl-swe-fstab` (0700, ours;
 * anything else there is refused, as it could rewrite the layout), creating the mount point too.
 * Returns the file and its removal. Files of processes that no longer exist are swept first.
 */
export const writeFstab = (mount: string, writeDir: string, readDirs: ReadonlyArray<string>): { readonly file: string; readonly remove: () => void } => {
  const dir = path.join(tmpdir(), 'mtrl-swe-fstab')
  if (!fs.existsSync(mount)) fs.mkdirSync(mount, { recursive: true, mode: 0o755 })
  if (checked !== dir) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    const st = fs.lstatSync(dir)
    if (!st.isDirectory() || st.uid !== process.getuid?.() || (st.mode & 0o077) !== 0) throw new Error(`${dir} is not a private directory of this user`)
    for (const name of fs.readdirSync(dir)) {
      const pid = Number(/^(\d+)-/.exec(name)?.[1])
      if (!Number.isInteger(pid) || pid === process.pid) continue
      try {
        process.kill(pid, 0)
      } catch {
        fs.rmSync(path.join(dir, name), { force: true })
      }
    }
    checked = dir
  }
  const file = path.join(dir, `${process.pid}-${counter++}.fstab`)
  fs.writeFileSync(file, fstab(mount, writeDir, readDirs), { mode: 0o600 })
  return { file, remove: () => fs.rmSync(file, { force: true }) }
}

/** The command prefix that runs the rest of a command line in the new root. */
export const wrap = (mount: string, fstabFile: string, cwd: string): ReadonlyArray<string> => ['/bin/sh', '-c', script, 'mtrl-jail', mount, fstabFile, cwd]
