/**
 * The digest the indexer names, keys and compares content by: sha256, in hex.
 * One home, so that every cache and part name agrees on it; crypto.hash is
 * the one-shot form (no Hash object per call), which counts at the thousands
 * of small inputs a build hashes.
 */
import { hash } from 'node:crypto'

export const sha256 = (data: string | Uint8Array): string => hash('sha256', data, 'hex')
