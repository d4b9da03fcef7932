// an environment may depend only on core: importing the testing helpers from src is fine for
// the tags but a TensorFlow.js backend is not: both rules must fire here.
import '@tensorflow/tfjs-backend-wasm'
import { Rng } from '@mtrl/core'

export const rng = Rng.make(1)
