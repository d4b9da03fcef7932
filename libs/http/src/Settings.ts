/**
 * The settings every mtrl HTTP server takes (each says its own defaults).
 *
 * @since 0.1.0
 */

/**
 * - `host` (mtrl's servers default to `127.0.0.1`), `port` (0: any free port);
 * - `token`: when set, requests need `Authorization: Bearer <token>` ({@link Bearer});
 * - `maxBodyBytes`: the largest request body read ({@link Body.read});
 * - `shutdownGraceMs`: how long a close waits for the requests in flight ({@link Traffic.close}).
 *
 * @category models
 * @since 0.1.0
 */
export interface Settings {
  readonly host?: string
  readonly port?: number
  readonly token?: string
  readonly maxBodyBytes?: number
  readonly shutdownGraceMs?: number
}
