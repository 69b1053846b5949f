/**
 * A minimal ONNX writer: just enough of the protobuf wire format and of
 * onnx.proto (ModelProto, GraphProto, NodeProto, TensorProto, ValueInfoProto)
 * to export small graphs without Python. Field numbers follow onnx/onnx.proto3.
 */

export const ONNX_FLOAT = 1
export const ONNX_INT8 = 3
export const ONNX_INT64 = 7

type Bytes = Uint8Array

function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n))
  const out: number[] = []
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80)
    v >>= 7n
  }
  out.push(Number(v))
  return out
}

class Msg {
  private parts: number[] = []
  private chunks: Bytes[] = []
  private flush() {
    if (this.parts.length) this.chunks.push(Uint8Array.from(this.parts))
    this.parts = []
  }
  int(field: number, n: number | bigint): this {
    this.parts.push(...varint((field << 3) | 0), ...varint(n))
    return this
  }
  float(field: number, x: number): this {
    const b = new Uint8Array(4)
    new DataView(b.buffer).setFloat32(0, x, true)
    this.parts.push(...varint((field << 3) | 5), ...b)
    return this
  }
  bytes(field: number, data: Bytes): this {
    this.parts.push(...varint((field << 3) | 2), ...varint(data.length))
    this.flush()
    this.chunks.push(data)
    return this
  }
  str(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s))
  }
  msg(field: number, m: Msg): this {
    return this.bytes(field, m.encode())
  }
  encode(): Bytes {
    this.flush()
    const len = this.chunks.reduce((n, c) => n + c.length, 0)
    const out = new Uint8Array(len)
    let at = 0
    for (const c of this.chunks) {
      out.set(c, at)
      at += c.length
    }
    return out
  }
}

export interface Tensor {
  name: string
  type: number
  dims: number[]
  /** Little-endian raw bytes. */
  data: Bytes
}

export type Attr = { name: string; int: number } | { name: string; ints: number[] } | { name: string; float: number }

export interface Node {
  op: string
  inputs: string[]
  outputs: string[]
  attrs?: Attr[]
}

export interface ValueInfo {
  name: string
  type: number
  /** Numbers are fixed sizes; strings are symbolic (batch, sequence). */
  shape: (number | string)[]
}

export interface Graph {
  name: string
  nodes: Node[]
  initializers: Tensor[]
  inputs: ValueInfo[]
  outputs: ValueInfo[]
}

function tensor(t: Tensor): Msg {
  const m = new Msg()
  for (const d of t.dims) m.int(1, d)
  return m.int(2, t.type).str(8, t.name).bytes(9, t.data)
}

function valueInfo(v: ValueInfo): Msg {
  const shape = new Msg()
  for (const d of v.shape) shape.msg(1, typeof d === 'number' ? new Msg().int(1, d) : new Msg().str(2, d))
  const tensorType = new Msg().int(1, v.type).msg(2, shape)
  return new Msg().str(1, v.name).msg(2, new Msg().msg(1, tensorType))
}

function node(n: Node, i: number): Msg {
  const m = new Msg()
  for (const x of n.inputs) m.str(1, x)
  for (const x of n.outputs) m.str(2, x)
  m.str(3, `${n.op}_${i}`).str(4, n.op)
  for (const a of n.attrs ?? []) {
    const am = new Msg().str(1, a.name)
    if ('int' in a) am.int(3, a.int).int(20, 2)
    else if ('float' in a) am.float(2, a.float).int(20, 1)
    else {
      for (const x of a.ints) am.int(8, x)
      am.int(20, 7)
    }
    m.msg(5, am)
  }
  return m
}

export function encodeModel(graph: Graph, opts: { opset?: number; producer?: string } = {}): Bytes {
  const g = new Msg()
  graph.nodes.forEach((n, i) => g.msg(1, node(n, i)))
  g.str(2, graph.name)
  for (const t of graph.initializers) g.msg(5, tensor(t))
  for (const v of graph.inputs) g.msg(11, valueInfo(v))
  for (const v of graph.outputs) g.msg(12, valueInfo(v))
  return new Msg()
    .int(1, 8) // ir_version 8
    .str(2, opts.producer ?? 'docpilot')
    .msg(7, g)
    .msg(8, new Msg().str(1, '').int(2, opts.opset ?? 17))
    .encode()
}

export function floatTensor(name: string, dims: number[], values: ArrayLike<number>): Tensor {
  const f = Float32Array.from(values as ArrayLike<number>)
  return { name, type: ONNX_FLOAT, dims, data: new Uint8Array(f.buffer) }
}

export function int64Tensor(name: string, dims: number[], values: number[]): Tensor {
  const b = BigInt64Array.from(values.map((v) => BigInt(v)))
  return { name, type: ONNX_INT64, dims, data: new Uint8Array(b.buffer) }
}
