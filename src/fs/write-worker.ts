/**
 * The file-writing thread (see `file-writer.ts`): creates each file of a batch with the flags it was started
 * with and the file's mode, sets the mode exactly (the umask may have narrowed it), writes the bytes and
 * closes it, one file after another; stops a batch at the first failure and says which file it was.
 */
import {closeSync, fchmodSync, openSync, writeSync} from 'node:fs'
import {parentPort, workerData} from 'node:worker_threads'
import type {NewFile, WriteReply, WriteRequest, WriterFlags, WriterReady} from './file-writer.js'

const {create} = workerData as WriterFlags

parentPort?.on('message', ({id, files}: WriteRequest) => {
  const failure = writeFiles(files)
  // The buffers go back to be filled again: held here, they would be freed only when this thread's heap
  // is next collected, which a thread that allocates little does late (tens of MiB of written bytes).
  const buffers = [...new Set(files.map((file) => file.bytes.buffer))].filter((buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer)
  parentPort!.postMessage({id, failure, buffers} satisfies WriteReply, buffers)
})

// Loaded: batches may come.
parentPort?.postMessage({ready: true} satisfies WriterReady)

function writeFiles(files: readonly NewFile[]): WriteReply['failure'] {
  for (const [position, file] of files.entries()) {
    try {
      writeFile(file)
    } catch (error) {
      const {message, code, errno, syscall, path} = error as NodeJS.ErrnoException
      return {position, message: String(message), code: code ?? null, errno: errno ?? null, syscall: syscall ?? null, path: path ?? null}
    }
  }
  return null
}

function writeFile({file, mode, bytes}: NewFile): void {
  const fd = openSync(file, create, mode)
  try {
    fchmodSync(fd, mode)
    for (let offset = 0; offset < bytes.byteLength; ) offset += writeSync(fd, bytes, offset, bytes.byteLength - offset)
  } catch (error) {
    // The failure that matters is the write's, not a close of a descriptor it left unusable.
    try {
      closeSync(fd)
    } catch {}
    throw error
  }
  closeSync(fd)
}
