/**
 * Pack's encoding worker: the archive's encoding (`encode-batch.ts`) with the secret scan's first look at
 * each file taken on the worker's thread, so that only the bytes of a file that may hold a secret (a key
 * marker, a keyword of a credential rule, a key in binary form) come back to be scanned; the scan of any
 * other file needs its name alone. The archive is the same; the scan finds the same.
 */
import {parentPort} from 'node:worker_threads'
import {serveEncodeBatches} from '../archive/encode-batch.js'
import {contentMayHoldSecret} from '../artifact/secrets.js'

if (parentPort !== null) serveEncodeBatches(parentPort, contentMayHoldSecret)
