// core must not depend on anything but core: this import must be reported.
import { Backend } from '@mtrl/backend'

export const name = Backend.names
