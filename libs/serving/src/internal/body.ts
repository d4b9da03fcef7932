/**
 * Request bodies under a size limit and JSON answers (`Body` of @mtrl/http), and OpenAI's error
 * object as an answer.
 */
import { Body } from '@mtrl/http'
import type { ServerResponse } from 'node:http'
import * as Response from '../Response.js'

export const { read, json } = Body

/** Answers with OpenAI's error object and `status` (nothing when the answer has started or the client is gone). */
export const fail = (res: ServerResponse, status: number, message: string, type: string, param: string | null = null, code: string | null = null): void =>
  json(res, status, Response.error(message, type, param, code))
