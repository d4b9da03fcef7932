/** Saving bytes as a file the browser downloads (a Blob URL on a transient link). */

export const download = (name: string, bytes: Uint8Array, type = 'application/zip'): void => {
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type }))
  const link = Object.assign(document.createElement('a'), { href: url, download: name })
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
