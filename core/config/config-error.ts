/** A config that cannot be used: each problem names the file, the field and the fix (validate.ts words them). */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(problems.map((p) => `Invalid config ${file}: ${p}`).join('\n'))
    this.name = 'ConfigError'
  }
}
