// `events` for the repository's code: an EventEmitter with Node's interface, evaluated inside the
// Compartment (so it shares nothing with the harness). Node's own cannot be handed over: its
// prototype is shared with every stream and process object of the harness, and freezing it would
// break them (instances assign over its `_events`). Evaluated as a CommonJS module body.
'use strict'

const kCapture = Symbol('kCapture')

function EventEmitter() {
  EventEmitter.init.call(this)
}
EventEmitter.defaultMaxListeners = 10
EventEmitter.captureRejections = false
EventEmitter.errorMonitor = Symbol('events.errorMonitor')
EventEmitter.init = function () {
  if (this._events === undefined || this._events === Object.getPrototypeOf(this)._events) {
    Object.defineProperty(this, '_events', { value: Object.create(null), writable: true, configurable: true })
    this._eventsCount = 0
  }
}

const listenersOf = (emitter, type) => {
  if (emitter._events === undefined) EventEmitter.init.call(emitter)
  return emitter._events[type]
}
const add = (emitter, type, listener, prepend) => {
  if (typeof listener !== 'function') throw new TypeError('The "listener" argument must be of type function')
  const list = listenersOf(emitter, type)
  if (emitter._events.newListener !== undefined) emitter.emit('newListener', type, listener.listener ? listener.listener : listener)
  if (list === undefined) {
    emitter._events[type] = [listener]
    emitter._eventsCount = (emitter._eventsCount || 0) + 1
  } else if (prepend) list.unshift(listener)
  else list.push(listener)
  return emitter
}
const onceWrapper = (emitter, type, listener) => {
  const wrapped = function (...args) {
    emitter.removeListener(type, wrapped)
    return listener.apply(emitter, args)
  }
  wrapped.listener = listener
  return wrapped
}

Object.assign(EventEmitter.prototype, {
  setMaxListeners(n) {
    this._maxListeners = n
    return this
  },
  getMaxListeners() {
    return this._maxListeners === undefined ? EventEmitter.defaultMaxListeners : this._maxListeners
  },
  emit(type, ...args) {
    const list = listenersOf(this, type)
    if (type === 'error' && this._events[EventEmitter.errorMonitor] !== undefined) this.emit(EventEmitter.errorMonitor, ...args)
    if (list === undefined) {
      if (type === 'error') {
        const er = args[0]
        if (er instanceof Error) throw er
        throw new Error(`Unhandled error. (${String(er)})`)
      }
      return false
    }
    for (const listener of [...list]) listener.apply(this, args)
    return true
  },
  addListener(type, listener) {
    return add(this, type, listener, false)
  },
  on(type, listener) {
    return add(this, type, listener, false)
  },
  prependListener(type, listener) {
    return add(this, type, listener, true)
  },
  once(type, listener) {
    if (typeof listener !== 'function') throw new TypeError('The "listener" argument must be of type function')
    return add(this, type, onceWrapper(this, type, listener), false)
  },
  prependOnceListener(type, listener) {
    if (typeof listener !== 'function') throw new TypeError('The "listener" argument must be of type function')
    return add(this, type, onceWrapper(this, type, listener), true)
  },
  removeListener(type, listener) {
    const list = listenersOf(this, type)
    if (list === undefined) return this
    const at = list.findLastIndex((l) => l === listener || l.listener === listener)
    if (at === -1) return this
    list.splice(at, 1)
    if (list.length === 0) {
      delete this._events[type]
      this._eventsCount--
    }
    if (this._events.removeListener !== undefined) this.emit('removeListener', type, listener)
    return this
  },
  off(type, listener) {
    return this.removeListener(type, listener)
  },
  removeAllListeners(type) {
    if (this._events === undefined) return this
    if (type === undefined) {
      this._events = Object.create(null)
      this._eventsCount = 0
    } else if (this._events[type] !== undefined) {
      delete this._events[type]
      this._eventsCount--
    }
    return this
  },
  listeners(type) {
    const list = listenersOf(this, type)
    return list === undefined ? [] : list.map((l) => l.listener || l)
  },
  rawListeners(type) {
    const list = listenersOf(this, type)
    return list === undefined ? [] : [...list]
  },
  listenerCount(type) {
    const list = listenersOf(this, type)
    return list === undefined ? 0 : list.length
  },
  eventNames() {
    return this._events === undefined ? [] : Reflect.ownKeys(this._events)
  }
})
EventEmitter.prototype._events = undefined
EventEmitter.prototype._eventsCount = 0
EventEmitter.prototype._maxListeners = undefined
EventEmitter.prototype[kCapture] = false

EventEmitter.listenerCount = (emitter, type) => emitter.listenerCount(type)
EventEmitter.once = (emitter, name) =>
  new Promise((resolve, reject) => {
    const onError = (err) => {
      emitter.removeListener(name, onEvent)
      reject(err)
    }
    const onEvent = (...args) => {
      if (name !== 'error') emitter.removeListener('error', onError)
      resolve(args)
    }
    emitter.once(name, onEvent)
    if (name !== 'error') emitter.once('error', onError)
  })
EventEmitter.EventEmitter = EventEmitter

module.exports = EventEmitter
