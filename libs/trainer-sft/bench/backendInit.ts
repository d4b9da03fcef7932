// The replicas' init in the bench: the same backend as the bench's own thread.
import { Backend } from '@mtrl/backend'

export default async (name: Backend.Name): Promise<void> => {
  const selected = await Backend.select(name)()
  if (selected._tag === 'Left') throw new Error(Backend.message(selected.left))
}
