/**
 * An encoding worker: a thread that reads, checks and encodes batches of small files for the archive writer
 * (`encode-batch.ts`), so that an archive of many small files uses every core. It hands back the bytes of
 * every file whose source asked for them.
 */
import {parentPort} from 'node:worker_threads'
import {serveEncodeBatches} from './encode-batch.js'

if (parentPort !== null) serveEncodeBatches(parentPort)
