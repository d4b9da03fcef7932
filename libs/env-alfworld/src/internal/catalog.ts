/**
 * The household vocabulary: receptacle types, object types with their affordances and where
 * they plausibly lie, and the receptacles each kind of room has. Names follow ALFWorld's
 * demangled lower-case object names ("sinkbasin", "desklamp", "peppershaker").
 */

/** Affordances, as in ALFRED's object metadata. */
export interface ObjectKind {
  /** Receptacle types the object is found in/on at the start of a game. */
  readonly placements: ReadonlyArray<string>
  readonly pickupable: boolean
  readonly cleanable: boolean
  readonly heatable: boolean
  readonly coolable: boolean
  readonly sliceable: boolean
  /** Can slice other objects (knife, butterknife). */
  readonly slicer: boolean
  /** A lamp the agent can toggle with `use`. */
  readonly lamp: boolean
}

const kind = (placements: string, flags = ''): ObjectKind => ({
  placements: placements.split(' '),
  pickupable: !flags.includes('L'),
  cleanable: flags.includes('c'),
  heatable: flags.includes('h'),
  coolable: flags.includes('k'),
  sliceable: flags.includes('s'),
  slicer: flags.includes('x'),
  lamp: flags.includes('L')
})

/** Openable receptacle types: they start open or closed and must be open to take or put. */
export const openableTypes: ReadonlySet<string> = new Set(['cabinet', 'drawer', 'fridge', 'microwave', 'safe'])

/** Object types and affordances (c clean, h heat, k cool, s slice, x slicer, L lamp). */
export const objectKinds: Readonly<Record<string, ObjectKind>> = {
  apple: kind('countertop diningtable fridge garbagecan sinkbasin microwave', 'chks'),
  bread: kind('countertop diningtable fridge cabinet', 'hks'),
  egg: kind('countertop diningtable fridge sinkbasin garbagecan', 'chk'),
  lettuce: kind('countertop diningtable fridge sinkbasin', 'cks'),
  potato: kind('countertop diningtable fridge sinkbasin microwave garbagecan', 'chks'),
  tomato: kind('countertop diningtable fridge sinkbasin garbagecan', 'chks'),
  mug: kind('cabinet countertop coffeemachine diningtable microwave sinkbasin shelf desk sidetable', 'chk'),
  cup: kind('cabinet countertop diningtable fridge microwave sinkbasin shelf', 'chk'),
  plate: kind('cabinet countertop diningtable fridge shelf', 'chk'),
  bowl: kind('cabinet countertop diningtable fridge shelf microwave coffeetable desk', 'ck'),
  pan: kind('stoveburner countertop cabinet diningtable', 'ck'),
  pot: kind('stoveburner countertop cabinet shelf diningtable', 'ck'),
  kettle: kind('stoveburner countertop cabinet shelf', 'c'),
  knife: kind('countertop drawer diningtable sinkbasin', 'cx'),
  butterknife: kind('countertop drawer diningtable', 'cx'),
  fork: kind('drawer countertop diningtable sinkbasin', 'c'),
  spoon: kind('drawer countertop diningtable sinkbasin', 'c'),
  spatula: kind('drawer countertop diningtable sinkbasin', 'c'),
  ladle: kind('drawer countertop diningtable sinkbasin', 'c'),
  dishsponge: kind('sinkbasin countertop cabinet drawer', 'c'),
  saltshaker: kind('countertop cabinet shelf diningtable drawer'),
  peppershaker: kind('countertop cabinet shelf diningtable drawer'),
  winebottle: kind('countertop cabinet fridge diningtable shelf', 'k'),
  soapbottle: kind('countertop cabinet shelf toilet garbagecan'),
  remotecontrol: kind('sofa armchair coffeetable sidetable tvstand drawer dresser'),
  keychain: kind('sofa armchair coffeetable sidetable drawer dresser shelf desk'),
  creditcard: kind('sofa armchair coffeetable sidetable drawer dresser shelf desk'),
  cellphone: kind('sofa coffeetable sidetable bed desk drawer dresser'),
  laptop: kind('sofa coffeetable bed desk armchair diningtable'),
  newspaper: kind('sofa coffeetable armchair sidetable ottoman diningtable garbagecan'),
  pillow: kind('sofa armchair bed'),
  statue: kind('coffeetable sidetable shelf tvstand dresser diningtable'),
  vase: kind('coffeetable sidetable shelf tvstand dresser diningtable'),
  watch: kind('coffeetable sidetable drawer dresser shelf desk'),
  box: kind('coffeetable sofa sidetable tvstand dresser diningtable'),
  book: kind('bed desk sidetable shelf coffeetable sofa drawer'),
  alarmclock: kind('desk sidetable dresser shelf'),
  cd: kind('desk drawer shelf sidetable dresser garbagecan safe'),
  pen: kind('desk drawer shelf sidetable dresser'),
  pencil: kind('desk drawer shelf sidetable dresser'),
  baseballbat: kind('bed desk'),
  tennisracket: kind('bed desk'),
  cloth: kind('countertop cabinet drawer toilet bathtubbasin sinkbasin garbagecan shelf', 'c'),
  soapbar: kind('countertop toilet bathtubbasin sinkbasin cabinet garbagecan shelf', 'c'),
  spraybottle: kind('countertop toilet cabinet garbagecan shelf'),
  toiletpaper: kind('toiletpaperhanger toilet countertop cabinet garbagecan shelf'),
  candle: kind('countertop toilet cabinet shelf bathtubbasin'),
  towel: kind('towelholder countertop bathtubbasin'),
  handtowel: kind('handtowelholder countertop'),
  tissuebox: kind('countertop toilet shelf cabinet'),
  desklamp: kind('desk sidetable dresser', 'L')
}

/** The four room kinds of ALFRED's floor plans. */
export const roomKinds = ['kitchen', 'livingroom', 'bedroom', 'bathroom'] as const
export type RoomKind = (typeof roomKinds)[number]

/** `[receptacleType, min, max]`: how many of each a room of this kind has. */
export type ReceptacleRange = readonly [string, number, number]

interface RoomKindSpec {
  readonly receptacles: ReadonlyArray<ReceptacleRange>
  /** Object types found in this kind of room (besides the lamp). */
  readonly objects: ReadonlyArray<string>
  /** Whether a desklamp stands in the room. */
  readonly lamp: boolean
}

const words = (s: string): ReadonlyArray<string> => s.split(' ')

export const roomSpecs: Readonly<Record<RoomKind, RoomKindSpec>> = {
  kitchen: {
    receptacles: [
      ['cabinet', 2, 9],
      ['coffeemachine', 1, 1],
      ['countertop', 1, 3],
      ['diningtable', 0, 1],
      ['drawer', 1, 6],
      ['fridge', 1, 1],
      ['garbagecan', 1, 1],
      ['microwave', 1, 1],
      ['shelf', 0, 3],
      ['sinkbasin', 1, 1],
      ['stoveburner', 2, 4]
    ],
    objects: words(
      'apple bread egg lettuce potato tomato mug cup plate bowl pan pot kettle knife butterknife fork spoon spatula ladle dishsponge saltshaker peppershaker winebottle soapbottle'
    ),
    lamp: false
  },
  livingroom: {
    receptacles: [
      ['armchair', 0, 2],
      ['cabinet', 0, 4],
      ['coffeetable', 1, 1],
      ['diningtable', 0, 1],
      ['drawer', 0, 4],
      ['dresser', 0, 1],
      ['garbagecan', 1, 1],
      ['ottoman', 0, 1],
      ['shelf', 0, 4],
      ['sidetable', 1, 2],
      ['sofa', 1, 1],
      ['tvstand', 0, 1]
    ],
    objects: words('remotecontrol keychain creditcard cellphone laptop newspaper pillow statue vase watch box book bowl'),
    lamp: true
  },
  bedroom: {
    receptacles: [
      ['armchair', 0, 1],
      ['bed', 1, 1],
      ['desk', 0, 1],
      ['drawer', 1, 6],
      ['dresser', 0, 1],
      ['garbagecan', 1, 1],
      ['safe', 0, 1],
      ['shelf', 0, 4],
      ['sidetable', 1, 2]
    ],
    objects: words('alarmclock book cd cellphone creditcard keychain laptop pen pencil pillow watch mug baseballbat tennisracket'),
    lamp: true
  },
  bathroom: {
    receptacles: [
      ['bathtubbasin', 0, 1],
      ['cabinet', 1, 4],
      ['countertop', 1, 1],
      ['drawer', 0, 4],
      ['garbagecan', 1, 1],
      ['handtowelholder', 0, 1],
      ['shelf', 0, 2],
      ['sinkbasin', 1, 2],
      ['toilet', 1, 1],
      ['toiletpaperhanger', 1, 1],
      ['towelholder', 0, 1]
    ],
    objects: words('cloth soapbar soapbottle spraybottle toiletpaper candle towel handtowel tissuebox'),
    lamp: false
  }
}

/** The preposition ALFWorld's goals use for a receptacle type. */
export const preposition = (receptacleType: string): 'in' | 'on' =>
  openableTypes.has(receptacleType) || ['sinkbasin', 'bathtubbasin', 'garbagecan', 'laundryhamper'].includes(receptacleType) ? 'in' : 'on'

export const objectKind = (type: string): ObjectKind => {
  const k = objectKinds[type]
  if (k === undefined) throw new Error(`catalog: unknown object type ${type}`)
  return k
}
