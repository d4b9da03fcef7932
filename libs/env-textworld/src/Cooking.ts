/**
 * The simple cooking game, TextWorld's `tw-simple` challenge (the paper's reward-density
 * study, §6): a fixed house of six rooms; the player starts in the bedroom behind a locked
 * wooden door whose old key is in the chest drawer or the antique trunk, must find a food
 * item (in the refrigerator, on the couch or in the garden, names shuffled) and put it on the
 * stove. Eating that food loses.
 *
 * ```
 *                 Bathroom
 *                    |
 *   Bedroom -(wooden door)- Kitchen -(screen door)- Backyard
 *                    |                                 |
 *               Living Room                         Garden
 * ```
 *
 * Reward densities follow TextWorld's `challenges/simple.py`: `sparse` scores only the food on
 * the stove; `balanced` adds reaching the kitchen, opening the doors on the route and holding
 * the food (that subgoal is listed twice in TextWorld's source, so taking the food is worth 2);
 * `dense` adds opening the key's container, taking the key, unlocking and opening the wooden
 * door and entering each room on the route.
 *
 * @since 0.1.0
 */
import { Rng } from '@mtrl/core'
import type { Entity, EntityKind, Fact, Game, Room } from './Game.js'
import { CLOSED, LOCKED } from './Game.js'
import { build } from './internal/build.js'
import * as Names from './internal/names.js'
import type { Cooking } from './Settings.js'
import * as Text from './Text.js'

const BEDROOM = 0
const KITCHEN = 1
const LIVING = 2
const BATHROOM = 3
const BACKYARD = 4
const GARDEN = 5

const roomSpec: ReadonlyArray<readonly [string, number, number]> = [
  ['bedroom', 0, 1],
  ['kitchen', 1, 1],
  ['living room', 1, 2],
  ['bathroom', 1, 0],
  ['backyard', 2, 1],
  ['garden', 2, 2]
]

// [room, dir, neighbour, door] with dir 0 north, 1 south, 2 east, 3 west.
const links: ReadonlyArray<readonly [number, number, number, number]> = [
  [BEDROOM, 2, KITCHEN, 0],
  [KITCHEN, 0, BATHROOM, -1],
  [KITCHEN, 1, LIVING, -1],
  [KITCHEN, 2, BACKYARD, 1],
  [BACKYARD, 1, GARDEN, -1]
]

/** Food names of the training distribution, in their slots: fridge x2, couch, garden x3. */
export const trainFoods = ['apple', 'milk', 'half of a bag of chips', 'tomato plant', 'bell pepper', 'lettuce'] as const
/** Unseen names used when `test` is set. */
export const testFoods = ['garlic', 'kiwi', 'carrot'] as const

const WOODEN = 0
const SCREEN = 1
const DRAWER = 2
const TRUNK = 3
const STOVE = 6
const FRIDGE = 8
const COUCH = 12
const FOOD0 = 22
const KEY = 28

type Spec = readonly [EntityKind, string, number, number | 'floor' | 'none']
// [kind, name, room (fixed things), holder of an item (entity index), 'floor' or 'none']
const fixed: ReadonlyArray<Spec> = [
  ['door', 'wooden door', -1, 'none'],
  ['door', 'screen door', -1, 'none'],
  ['container', 'chest drawer', BEDROOM, 'none'],
  ['container', 'antique trunk', BEDROOM, 'none'],
  ['supporter', 'king-size bed', BEDROOM, 'none'],
  ['supporter', 'counter', KITCHEN, 'none'],
  ['supporter', 'stove', KITCHEN, 'none'],
  ['supporter', 'kitchen island', KITCHEN, 'none'],
  ['container', 'refrigerator', KITCHEN, 'none'],
  ['container', 'toilet', BATHROOM, 'none'],
  ['supporter', 'sink', BATHROOM, 'none'],
  ['container', 'bath', BATHROOM, 'none'],
  ['supporter', 'couch', LIVING, 'none'],
  ['supporter', 'low table', LIVING, 'none'],
  ['supporter', 'tv', LIVING, 'none'],
  ['supporter', 'bbq', BACKYARD, 'none'],
  ['supporter', 'patio table', BACKYARD, 'none'],
  ['supporter', 'set of chairs', BACKYARD, 'none'],
  ['item', 'toothbrush', BATHROOM, 10],
  ['item', 'soap bar', BATHROOM, 11],
  ['item', 'remote', LIVING, 13],
  ['item', 'shovel', GARDEN, 'floor']
]
const foodHolders: ReadonlyArray<number | 'floor'> = [FRIDGE, FRIDGE, COUCH, 'floor', 'floor', 'floor']

/** Exits and doors of the house (`exits[4 * room + dir]`, `doors[4 * room + dir]`). */
const houseMap = (): { readonly exits: Int16Array; readonly doors: Int16Array } => {
  const exits = new Int16Array(24).fill(-1)
  const doors = new Int16Array(24).fill(-1)
  for (const [a, d, b, door] of links) {
    exits[4 * a + d] = b
    exits[4 * b + (d ^ 1)] = a
    doors[4 * a + d] = door
    doors[4 * b + (d ^ 1)] = door
  }
  return { exits, doors }
}

/** The entities of the house from their specs; the note carries the brief objective. */
const entitiesOf = (specs: ReadonlyArray<Spec>, brief: string): Entity[] =>
  specs.map(([kind, name, room], e) => ({
    kind,
    name,
    room: kind === 'container' || kind === 'supporter' ? room : -1,
    between: e === WOODEN ? [BEDROOM, KITCHEN] : e === SCREEN ? [KITCHEN, BACKYARD] : undefined,
    key: e === WOODEN ? KEY : -1,
    isKey: e === KEY,
    edible: e >= FOOD0 && e < FOOD0 + 6,
    description: e === KEY + 1 ? brief : ''
  }))

/** The way to the food: the walkthrough, the rooms entered on the way and the doors opened. */
interface Route {
  readonly walkthrough: ReadonlyArray<string>
  readonly route: ReadonlyArray<Fact>
  readonly doorsToOpen: ReadonlyArray<Fact>
}

/** The route to the food of `slot` (fridge, couch or garden) with the key in `holderName`. */
const routeOf = (slot: number, foodName: string, holderName: string): Route => {
  const walkthrough = [`open ${holderName}`, `take old key from ${holderName}`, 'unlock wooden door with old key', 'open wooden door', 'go east']
  const route: Fact[] = []
  const doorsToOpen: Fact[] = []
  if (slot < 2) walkthrough.push('open refrigerator', `take ${foodName} from refrigerator`)
  else if (slot === 2) {
    walkthrough.push('go south', `take ${foodName} from couch`, 'go north')
    route.push({ _tag: 'PlayerIn', room: LIVING })
  } else {
    walkthrough.push('open screen door', 'go east', 'go south', `take ${foodName}`, 'go north', 'go west')
    route.push({ _tag: 'PlayerIn', room: BACKYARD }, { _tag: 'PlayerIn', room: GARDEN })
    doorsToOpen.push({ _tag: 'Open', entity: SCREEN })
  }
  walkthrough.push(`put ${foodName} on stove`)
  return { walkthrough, route, doorsToOpen }
}

/** The scored subgoals of a reward density, the goal last (see the module's comment). */
const subgoalsOf = (rewards: Cooking['rewards'], keyHolder: number, food: number, goal: Fact, way: Route): Fact[] => {
  const dense = rewards === 'dense'
  const balanced = dense || rewards === 'balanced'
  const held: Fact = { _tag: 'Held', item: food }
  return [
    ...(dense
      ? [
          { _tag: 'Open', entity: keyHolder } as const,
          { _tag: 'Held', item: KEY } as const,
          { _tag: 'Unlocked', entity: WOODEN } as const,
          { _tag: 'Open', entity: WOODEN } as const
        ]
      : []),
    ...(balanced ? [{ _tag: 'PlayerIn', room: KITCHEN } as const, ...way.doorsToOpen] : []),
    ...(dense ? way.route : []),
    ...(balanced ? [held, held] : []),
    goal
  ]
}

/**
 * The cooking game for a seed.
 *
 * @example
 * import { Cooking, Settings } from '@mtrl/env-textworld'
 * const game = Cooking.make(Settings.cooking('dense', 'detailed'), 3)
 * game.quest.walkthrough.length // 8, 9 or 12
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (settings: Cooking, seed: number): Game => {
  const rng = Rng.make(seed)
  const names: string[] = Rng.shuffle(rng)<string>(trainFoods)
  const inDrawer = rng.next() > 0.5
  const slot = rng.int(6)
  if (settings.test) names[slot] = Rng.pick(rng)(testFoods)
  const food = FOOD0 + slot
  const foodName = names[slot]!
  const holder = inDrawer ? DRAWER : TRUNK
  const specs: Spec[] = [
    ...fixed,
    ...foodHolders.map((h, i): Spec => ['item', names[i]!, h === 'floor' ? GARDEN : -1, h]),
    ['item', 'old key', BEDROOM, holder],
    ['item', 'note', KITCHEN, 7]
  ]
  const brief = `The dinner is almost ready! It's only missing a grilled ${foodName}.`
  const entities = entitiesOf(specs, brief)
  const pos = specs.map(([, , room, at]) => (at === 'floor' ? room : at === 'none' ? -3 : roomSpec.length + at))
  const status = entities.map((e, i) => (i === WOODEN ? LOCKED : e.kind === 'container' || i === SCREEN ? CLOSED : 0))
  const { exits, doors } = houseMap()
  const rooms: Room[] = roomSpec.map(([name, x, y]) => ({ name, x, y, intro: Rng.pick(rng)(Names.roomIntros)(name) }))
  const way = routeOf(slot, foodName, entities[holder]!.name)
  const goal: Fact = { _tag: 'Placed', item: food, holder: STOVE }
  const subgoals = subgoalsOf(settings.rewards, holder, food, goal, way)
  const { walkthrough } = way
  const objective = settings.goal === 'detailed' ? Text.stepByStep(rng, walkthrough) : settings.goal === 'brief' ? brief : ''
  return build({
    setting: `tw-simple-${settings.rewards}-${settings.goal}${settings.test ? '-test' : ''}`,
    seed,
    rooms,
    exits,
    doors,
    entities,
    pos,
    status,
    player: BEDROOM,
    quest: { goal, lose: { _tag: 'Eaten', item: food }, subgoals, walkthrough },
    objective
  })
}
