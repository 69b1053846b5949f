import { describe, expect, it } from 'vitest'
import type { EmbedderIdentity, Manifest } from '../index/format.ts'
import { fusionConfig, gateConfig } from './hybrid.ts'
import { ENCODER_TUNING, STATIC_TUNING, tuningFor } from './tuning.ts'

const identity = (model: string, kind: EmbedderIdentity['kind'] = 'local'): EmbedderIdentity => ({ id: model, kind, model, dims: 8, quantization: 'int8' })

describe('settings per kind of embedder', () => {
  it('a static model gets the static tuning; an ONNX or hosted encoder the encoder tuning', () => {
    expect(tuningFor(identity('static:docpilot-minilm-static-en-v1'))).toBe(STATIC_TUNING)
    expect(tuningFor(identity('onnx:local:minilm'))).toBe(ENCODER_TUNING)
    expect(tuningFor(identity('text-embedding-3-small', 'hosted'))).toBe(ENCODER_TUNING)
    expect(tuningFor(identity('', 'none')).gate.lexicalThreshold).toBe(STATIC_TUNING.gate.lexicalThreshold)
  })

  it("a manifest's own gate and fusion are used as written; a lexical-only index's empty fusion is its embedder's tuning", () => {
    const gate = { ...ENCODER_TUNING.gate, threshold: 0.9 }
    const fusion = { method: 'rrf', k: 60, lexicalWeight: 1, denseWeight: 1 } as const
    const manifest = (f: Manifest['retrieval']['fusion']) => ({ embedder: identity('onnx:local:minilm'), retrieval: { fusion: f, gate } }) as Manifest
    expect(gateConfig(manifest(fusion))).toBe(gate)
    expect(fusionConfig(manifest(fusion))).toBe(fusion)
    expect(fusionConfig(manifest({}))).toEqual(ENCODER_TUNING.fusion)
  })
})
