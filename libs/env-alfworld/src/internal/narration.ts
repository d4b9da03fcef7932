/**
 * ALFWorld's text conventions: "a apple 1, a bread 1, and a knife 1", receptacle
 * descriptions on arrival, the opening "You are in the middle of a room." paragraph.
 */
import type { Scene } from '../Scene.js'

/** "nothing" | "a x 1" | "a x 1, and a y 2" | "a x 1, a y 2, and a z 3" (ALFWorld always says "a"). */
export const list = (names: ReadonlyArray<string>): string => {
  if (names.length === 0) return 'nothing'
  if (names.length === 1) return `a ${names[0]}`
  return `${names
    .slice(0, -1)
    .map((n) => `a ${n}`)
    .join(', ')}, and a ${names[names.length - 1]}`
}

/** What the agent sees at receptacle r. */
export const describe = (scene: Scene, objectAt: ReadonlyArray<number>, opened: ReadonlyArray<boolean>, r: number): string => {
  const rec = scene.receptacles[r]!
  const contents = (): string => list(scene.objects.flatMap((o, i) => (objectAt[i] === r ? [o.name] : [])))
  if (!rec.openable) return `On the ${rec.name}, you see ${contents()}.`
  return opened[r] === true ? `The ${rec.name} is open. In it, you see ${contents()}.` : `The ${rec.name} is closed.`
}

/** The room overview. */
export const overview = (scene: Scene): string =>
  `You are in the middle of a room. Looking quickly around you, you see ${list(scene.receptacles.map((r) => r.name))}.`
