/**
 * Request bodies under a size limit and JSON answers (`Body` of @mtrl/http), and the
 * environment server's error answer.
 */
import { Body } from '@mtrl/http'
import type { ServerResponse } from 'node:http'

export const { read, json } = Body

/** Writes `{"error": {"_tag", "message", ...fields}}`. */
export const error = (
  res: ServerResponse,
  status: number,
  tag: string,
  message: string,
  fields: Readonly<Record<string, unknown>> = {},
  headers: Readonly<Record<string, string>> = {}
): void => json(res, status, { error: { _tag: tag, message, ...fields } }, headers)
