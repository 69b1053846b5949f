/**
 * A verbatim excerpt of a passage, legible: prose as a paragraph, code as
 * code (with a copy button), tables as tables, matched terms marked. It
 * starts at the first block with a match, so a long section shows the part
 * that answers, and stops at a size budget rather than mid-way through
 * everything.
 */
import type { ComponentChildren } from 'preact'
import { textBlocks, type Block } from '../../core/text/blocks.ts'
import { COPY } from './copy.ts'
import type { Marker, Segment } from './highlight.ts'

export const EXCERPT_BUDGET = 360
/** What a line of code or a table row costs of the budget. */
const LINE_COST = 48
const MIN_LINES = 3

function Marked({ segments }: { segments: Segment[] }) {
  return <>{segments.map((s) => (typeof s === 'string' ? s : <mark>{s.mark}</mark>))}</>
}

/**
 * A code block with its copy button. The panel's one click handler copies
 * `copy` (the whole code, when the excerpt shows only its start), else the
 * code shown next to the button.
 */
export function CodeBlock({ children, copy }: { children: ComponentChildren; copy: string }) {
  return (
    <div class="dp-code">
      <button type="button" class="dp-copy" data-copy-code={copy} aria-label={COPY.copyCode}>
        <span class="dp-copy-label">{COPY.copy}</span>
      </button>
      <pre>
        <code>{children}</code>
      </pre>
    </div>
  )
}

const hasMark = (segments: Segment[]) => segments.some((s) => typeof s !== 'string')

function blockText(block: Block): string {
  return block.kind === 'table' ? block.rows.map((r) => r.join(' ')).join('\n') : block.text
}

function cutProse(text: string, room: number): string {
  if (text.length <= room) return text
  return `${text.slice(0, room).replace(/\s+\S*$/, '')}…`
}

type Shown = Block & { whole?: string }

/** A table's header and at most `keep` of its rows: the rows with a match first, then the first others, in the table's order. */
function tableRows(rows: string[][], mark: Marker, keep: number): string[][] {
  const [head = [], ...body] = rows
  if (body.length <= keep) return rows
  const picked = new Set(body.flatMap((row, i) => (hasMark(mark(row.join(' '))) ? [i] : [])).slice(0, keep))
  for (let i = 0; picked.size < keep; i++) picked.add(i)
  return [head, ...body.filter((_, i) => picked.has(i))]
}

/** The blocks to show: from the first with a match, while the budget lasts, cut to fit. */
export function fit(blocks: Block[], mark: Marker, budget: number): { blocks: Shown[]; skipped: boolean } {
  const start = Math.max(0, blocks.findIndex((b) => hasMark(mark(blockText(b)))))
  const shown: Shown[] = []
  let left = budget
  for (const block of blocks.slice(start)) {
    if (left <= 0) break
    if (block.kind === 'prose') {
      shown.push({ kind: 'prose', text: cutProse(block.text, Math.max(left, 80)) })
      left -= block.text.length
    } else if (block.kind === 'code') {
      const lines = block.text.split('\n')
      const keep = Math.max(MIN_LINES, Math.floor(left / LINE_COST))
      shown.push({ kind: 'code', text: lines.length > keep ? `${lines.slice(0, keep).join('\n')}\n…` : block.text, whole: block.text })
      left -= Math.min(lines.length, keep) * LINE_COST
    } else {
      const keep = Math.max(MIN_LINES, Math.floor(left / LINE_COST))
      shown.push({ kind: 'table', rows: tableRows(block.rows, mark, keep) })
      left -= Math.min(block.rows.length, keep) * LINE_COST
    }
  }
  return { blocks: shown, skipped: start > 0 }
}

export function Excerpt({ text, mark, budget = EXCERPT_BUDGET }: { text: string; mark: Marker; budget?: number }) {
  const { blocks, skipped } = fit(textBlocks(text), mark, budget)
  return (
    <div class="dp-excerpt" dir="auto">
      {blocks.map((block, i) => {
        const lead = skipped && i === 0 ? '… ' : ''
        if (block.kind === 'prose') {
          return (
            <p>
              {lead}
              <Marked segments={mark(block.text)} />
            </p>
          )
        }
        if (block.kind === 'code') {
          return (
            <CodeBlock copy={block.whole ?? block.text}>
              <Marked segments={mark(block.text)} />
            </CodeBlock>
          )
        }
        const [head = [], ...rows] = block.rows
        return (
          <table>
            <thead>
              <tr>
                {head.map((cell) => (
                  <th scope="col">
                    <Marked segments={mark(cell)} />
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr>
                  {row.map((cell) => (
                    <td>
                      <Marked segments={mark(cell)} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        )
      })}
    </div>
  )
}
