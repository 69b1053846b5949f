import module from 'node:module'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { cacheCompiledModules } from './compile-cache.ts'

const nodeModule = module as typeof module & { enableCompileCache?: () => unknown }
const original = Object.getOwnPropertyDescriptor(nodeModule, 'enableCompileCache')

afterEach(() => {
  if (original) Object.defineProperty(nodeModule, 'enableCompileCache', original)
  else delete nodeModule.enableCompileCache
})

describe('cacheCompiledModules', () => {
  it("turns on Node's compile cache where Node has one (22.1 and later)", () => {
    const enable = vi.fn()
    Object.defineProperty(nodeModule, 'enableCompileCache', { value: enable, configurable: true, writable: true })
    cacheCompiledModules()
    expect(enable).toHaveBeenCalledOnce()
  })

  it('does nothing on a Node without one', () => {
    delete nodeModule.enableCompileCache
    expect(() => cacheCompiledModules()).not.toThrow()
  })
})
