/**
 * The few DOM helpers every panel uses: find an element by id (a missing one is a programmer
 * error), build one with its text and attributes, and read a number from an input.
 */

/** The element `#id`; throws when the page has none (the HTML and the code disagree). */
export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const found = document.getElementById(id)
  if (found === null) throw new Error(`the page has no #${id}`)
  return found as T
}

/** What {@link el} sets on a new element. */
export interface Props {
  readonly className?: string
  readonly text?: string
  readonly title?: string
  readonly attrs?: Readonly<Record<string, string>>
}

/** A new `<tag>` with `props` and `children` (strings become text). */
export const el = <K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, children: ReadonlyArray<Node | string> = []): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag)
  if (props.className !== undefined) node.className = props.className
  if (props.text !== undefined) node.textContent = props.text
  if (props.title !== undefined) node.title = props.title
  for (const [name, value] of Object.entries(props.attrs ?? {})) node.setAttribute(name, value)
  node.append(...children)
  return node
}

/** The number in input `#id`, or `fallback` when it is empty or not a number. */
export const numberIn = (id: string, fallback: number): number => {
  const value = Number(byId<HTMLInputElement>(id).value)
  return byId<HTMLInputElement>(id).value.trim() === '' || !Number.isFinite(value) ? fallback : value
}

/** `<option>`s for a `<select>`: each `[value, label]`. */
export const options = (choices: ReadonlyArray<readonly [string, string]>): ReadonlyArray<HTMLOptionElement> =>
  choices.map(([value, label]) => el('option', { text: label, attrs: { value } }))

/** A fixed-point percentage: `0.812` -> `81.2%`. */
export const percent = (x: number): string => `${(100 * x).toFixed(1)}%`
