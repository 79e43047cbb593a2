import { InvalidArgumentError } from 'commander'
import { isIsoDate } from '../domain/iso-date.js'

export function parseIsoDate(value: string): string {
  if (!isIsoDate(value)) throw new InvalidArgumentError('expected a real date as YYYY-MM-DD')
  return value
}

export function parseIntIn(min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number')
    const n = Number(value)
    if (n < min || n > max) throw new InvalidArgumentError(`expected ${min}..${max}`)
    return n
  }
}
