/**
 * @mtrl/cli: command-line programs as data. A sub-command declares its flags once
 * (`Command.make`): they are parsed and checked before it runs, and a bad one is named. Errors
 * are values with exit codes; `Program.run` dispatches, prints help and reports. Also JSON input
 * from a file or stdin, a progress bar, and Ctrl-C as a stop request.
 *
 * @since 0.1.0
 */
export * as Command from './Command.js'
export * as Input from './Input.js'
export * as Interrupt from './Interrupt.js'
export * as ProgressBar from './ProgressBar.js'
export * as Program from './Program.js'
