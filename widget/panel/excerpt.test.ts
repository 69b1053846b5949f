import { describe, expect, it } from 'vitest'
import { fit } from './Excerpt.tsx'
import type { Marker } from './highlight.ts'

/** Marks every "accent". */
const mark: Marker = (text) => text.split(/(accent)/).filter(Boolean).map((part) => (part === 'accent' ? { mark: part } : part))

describe('the excerpt of a passage', () => {
  it("keeps the table rows that match when the whole table does not fit, in the table's order", () => {
    const rows = [['Variable', 'Meaning'], ...['bg', 'fg', 'muted', 'line', 'link', 'code'].map((v) => [`--dp-${v}`, `the ${v} colour`]), ['--dp-accent', 'the accent colour']]
    const { blocks } = fit([{ kind: 'table', rows }], mark, 96)
    expect(blocks).toEqual([{ kind: 'table', rows: [['Variable', 'Meaning'], ['--dp-bg', 'the bg colour'], ['--dp-fg', 'the fg colour'], ['--dp-accent', 'the accent colour']] }])
  })

  it('shows a table that fits as it is', () => {
    const rows = [['A', 'B'], ['1', '2'], ['3', '4']]
    expect(fit([{ kind: 'table', rows }], mark, 360).blocks).toEqual([{ kind: 'table', rows }])
  })
})
