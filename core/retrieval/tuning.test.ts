import { describe, expect, it } from 'vitest'
import type { EmbedderIdentity, Manifest } from '../index-format.ts'
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

  it("a manifest's own settings win; a field it lacks comes from its embedder's tuning", () => {
    const manifest = {
      embedder: identity('onnx:local:minilm'),
      retrieval: { fusion: {}, gate: { threshold: 0.9, weights: { lexical: 0.4, dense: 0.6 } } },
    } as unknown as Manifest
    expect(gateConfig(manifest)).toEqual({ ...ENCODER_TUNING.gate, threshold: 0.9 })
    expect(fusionConfig(manifest)).toEqual(ENCODER_TUNING.fusion)
  })
})
