/**
 * The retrieval worker's side of one request: exactly one reply, whatever
 * happens. The panel waits on that reply (RetrievalClient has no time limit of
 * its own), so a request that failed, or whose reply could not be posted (a
 * result the structured clone refuses), still answers, as an error the panel
 * shows.
 */
import type { WorkerReply, WorkerRequest } from './protocol.ts'

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

export async function answer(request: WorkerRequest, handle: (request: WorkerRequest) => Promise<WorkerReply>, post: (reply: WorkerReply) => void): Promise<void> {
  let reply: WorkerReply
  try {
    reply = await handle(request)
  } catch (error) {
    reply = { id: request.id, ok: false, error: messageOf(error) }
  }
  try {
    post(reply)
  } catch (error) {
    post({ id: request.id, ok: false, error: `docpilot: the retrieval worker could not send its reply: ${messageOf(error)}` })
  }
}
