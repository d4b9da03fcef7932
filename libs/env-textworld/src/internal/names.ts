/**
 * Name pools of the house theme (TextWorld without adjectives: one noun per thing). Pools do
 * not overlap, and no name contains a word the parser splits on (from, on, into, in, with).
 */
import { Rng } from '@mtrl/core'

export const roomNames = [
  'kitchen',
  'bedroom',
  'bathroom',
  'living room',
  'attic',
  'cellar',
  'garage',
  'pantry',
  'study',
  'office',
  'hallway',
  'laundry room',
  'library',
  'workshop',
  'scullery',
  'basement',
  'spare room',
  'nursery',
  'den',
  'parlor'
] as const

export const doorNames = [
  'wooden door',
  'iron door',
  'glass door',
  'oak door',
  'metal door',
  'red door',
  'blue door',
  'sliding door',
  'front door',
  'back door',
  'barn door',
  'green door',
  'steel door',
  'pine door',
  'white door',
  'rusty door',
  'heavy door',
  'narrow door',
  'arched door',
  'painted door'
] as const

export const containerNames = [
  'chest',
  'box',
  'cabinet',
  'crate',
  'toolbox',
  'safe',
  'locker',
  'case',
  'suitcase',
  'wardrobe',
  'fridge',
  'trunk',
  'coffer',
  'basket',
  'cupboard',
  'drawer',
  'portmanteau',
  'strongbox',
  'hamper',
  'footlocker',
  'chest drawer',
  'bin',
  'canister',
  'freezer',
  'kist',
  'casket',
  'lunchbox',
  'tin',
  'closet',
  'bureau'
] as const

export const supporterNames = [
  'table',
  'shelf',
  'counter',
  'stand',
  'bench',
  'rack',
  'board',
  'workbench',
  'bookshelf',
  'desk',
  'mantelpiece',
  'bed',
  'sofa',
  'armchair',
  'nightstand',
  'worktop',
  'dresser',
  'stool',
  'side table',
  'coffee table',
  'bed stand',
  'pedestal',
  'ledge',
  'chair',
  'trolley',
  'futon',
  'console',
  'sideboard',
  'easel',
  'plinth'
] as const

export const itemNames = [
  'hat',
  'shoe',
  'book',
  'lamp',
  'mug',
  'towel',
  'sock',
  'scarf',
  'notebook',
  'pencil',
  'candle',
  'cushion',
  'umbrella',
  'glove',
  'ball',
  'clock',
  'spoon',
  'plate',
  'bowl',
  'vase',
  'mirror',
  'teapot',
  'blanket',
  'coin',
  'ring',
  'brush',
  'comb',
  'kettle',
  'pillow',
  'map',
  'compass',
  'whistle',
  'tie',
  'belt',
  'wallet',
  'sponge',
  'cup',
  'fork',
  'knife',
  'jug'
] as const

export const foodNames = [
  'apple',
  'banana',
  'carrot',
  'cookie',
  'sandwich',
  'pizza',
  'cheese',
  'bread',
  'orange',
  'pear',
  'mushroom',
  'onion',
  'potato',
  'egg',
  'cake',
  'muffin',
  'peach',
  'plum',
  'cucumber',
  'pie',
  'donut',
  'biscuit',
  'grape',
  'melon',
  'lemon'
] as const

export const keyNames = [
  'brass key',
  'iron key',
  'rusty key',
  'silver key',
  'golden key',
  'small key',
  'copper key',
  'steel key',
  'bronze key',
  'tiny key',
  'big key',
  'bent key',
  'shiny key',
  'latchkey',
  'skeleton key',
  'house key',
  'spare key',
  'worn key',
  'heavy key',
  'cheap key'
] as const

export const roomIntros = [
  (room: string) => `You've just walked into a ${room}.`,
  (room: string) => `You are in a ${room}. An usual one.`,
  (room: string) => `You find yourself in a ${room}. A normal kind of place.`,
  (room: string) => `Well, here we are in the ${room}.`,
  (room: string) => `You arrive in a ${room}. A typical one.`,
  (room: string) => `I never took you for the sort of person who would show up in a ${room}, but I guess I was wrong.`
] as const

/** A name drawer: shuffled pool, then numbered names once the pool runs out. */
export const drawer = (rng: Rng.Rng, pool: ReadonlyArray<string>): (() => string) => {
  const names = Rng.shuffle(rng)(pool)
  let next = 0
  return () => {
    const i = next++
    return i < names.length ? names[i]! : `${names[i % names.length]!} number ${Math.floor(i / names.length) + 1}`
  }
}
