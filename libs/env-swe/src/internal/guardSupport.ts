/**
 * Which guards this machine supports (see `Sandbox.probe`): the helper tools found on the usual
 * paths, and for each guard they cannot give, why. Namespaces and the mount-namespace jail are
 * tried for real (a few short `spawnSync` calls running `/bin/true`), since a tool that exists
 * may still be refused by the kernel or the container.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import type { Guard, Probe } from '../Sandbox.js'
import * as Jail from './jail.js'

/** A guard this machine cannot give, and why. */
type Missing = { readonly guard: Guard; readonly reason: string }

const which = (name: string): string | undefined =>
  ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'].map((d) => `${d}/${name}`).find((p) => existsSync(p))

const works = (cmd: string, args: ReadonlyArray<string>): boolean => {
  const r = spawnSync(cmd, args, { stdio: 'ignore', timeout: 5000 })
  return r.status === 0
}

const findTools = (): Probe['tools'] => ({
  unshare: which('unshare'),
  prlimit: which('prlimit'),
  setpriv: which('setpriv'),
  timeout: which('timeout'),
  mount: which('mount'),
  pivotRoot: which('pivot_root')
})

/** The `permission` guard needs Node's permission model. */
const permissionSupport = (): ReadonlyArray<Missing> => {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number]
  return major < 20 || (major === 20 && minor < 0)
    ? [{ guard: 'permission', reason: `Node ${process.versions.node} has no permission model (needs >= 20)` }]
    : []
}

const namespaceGuards = ['network', 'pidNamespace', 'mountNamespace'] as const

/**
 * The namespace guards: `unshare` as root, else in a user namespace (then every namespace
 * needs one); the mount namespace also needs the jail to set up.
 */
const namespaceSupport = (tools: Probe['tools'], root: boolean): { readonly missing: ReadonlyArray<Missing>; readonly userNamespace: boolean } => {
  if (tools.unshare === undefined)
    return { missing: namespaceGuards.map((guard) => ({ guard, reason: 'util-linux `unshare` not found' })), userNamespace: false }
  const nsArgs = ['--net', '--pid', '--fork', '--kill-child', '--', '/bin/true']
  const asRoot = root && works(tools.unshare, nsArgs)
  const userNamespace = !asRoot && works(tools.unshare, ['--user', '--map-root-user', ...nsArgs])
  if (!asRoot && !userNamespace) {
    const reason = '`unshare --net --pid` failed (needs root/CAP_SYS_ADMIN or unprivileged user namespaces)'
    return { missing: namespaceGuards.map((guard) => ({ guard, reason })), userNamespace: false }
  }
  const reason = jailFails(tools, userNamespace)
  return { missing: reason === undefined ? [] : [{ guard: 'mountNamespace', reason }], userNamespace }
}

/** Why the mount-namespace jail does not work here (`undefined` when it does): one real setup, running `/bin/true`. */
const jailFails = (tools: Probe['tools'], userNamespace: boolean): string | undefined => {
  if (tools.mount === undefined || tools.pivotRoot === undefined || !existsSync('/bin/sh')) return 'util-linux `mount`/`pivot_root` or `/bin/sh` not found'
  let dir: string | undefined
  let table: { readonly remove: () => void } | undefined
  try {
    const mount = Jail.mountPoint()
    dir = mkdtempSync(path.join(tmpdir(), 'mtrl-swe-probe-'))
    const t = Jail.writeFstab(mount, dir, [])
    table = t
    const args = [
      ...(userNamespace ? ['--user', '--map-root-user'] : []),
      '--mount',
      '--pid',
      '--fork',
      '--kill-child',
      '--',
      ...Jail.wrap(mount, t.file, dir),
      '/bin/true'
    ]
    const r = spawnSync(tools.unshare!, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 5000, encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } })
    return r.status === 0 ? undefined : `\`unshare --mount\` with a private root failed: ${(r.stderr ?? '').trim().split('\n')[0] || `exit ${r.status}`}`
  } catch (e) {
    return `\`unshare --mount\` with a private root failed: ${String(e)}`
  } finally {
    table?.remove()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }
}

/** The guards that rest on one helper tool each (`rlimits`, `uid`, `timeout`). */
const toolSupport = (tools: Probe['tools'], root: boolean): ReadonlyArray<Missing> => {
  const missing: Missing[] = []
  if (tools.prlimit === undefined) missing.push({ guard: 'rlimits', reason: 'util-linux `prlimit` not found' })
  if (tools.setpriv === undefined) missing.push({ guard: 'uid', reason: 'util-linux `setpriv` not found' })
  else if (!root) missing.push({ guard: 'uid', reason: 'dropping to a fresh uid needs root' })
  if (tools.timeout === undefined) missing.push({ guard: 'timeout', reason: 'coreutils `timeout` not found (the host-side kill still applies)' })
  return missing
}

/** The machine's tools, the guards it lacks (in the order of `Sandbox.allGuards`) and whether namespaces need a user namespace. */
export const detect = (): Omit<Probe, 'available'> => {
  const tools = findTools()
  const root = process.getuid?.() === 0
  const permission = permissionSupport()
  const namespaces = namespaceSupport(tools, root)
  return { missing: [...permission, ...namespaces.missing, ...toolSupport(tools, root)], tools, userNamespace: namespaces.userNamespace }
}
