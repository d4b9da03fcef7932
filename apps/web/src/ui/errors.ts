/**
 * The page's error list (`#errors`): the worker's `error` events and the page's own (a recipe
 * that is not JSON). A user's bad input is not a page failure, so it goes to `console.warn`.
 */
import { byId, el } from './dom.js'

/** How many errors stay on screen. */
const kept = 5

/** Shows `message` on top of `#errors` (a click dismisses it). */
export const showError = (message: string): void => {
  console.warn(`mtrl: ${message}`)
  const list = byId('errors')
  const item = el('li', { text: message, title: 'click to dismiss' })
  item.addEventListener('click', () => item.remove())
  list.prepend(item)
  while (list.children.length > kept) list.lastElementChild!.remove()
}
