import { InvalidArgumentError } from 'commander'

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/

export function parseIsoDate(value: string): string {
  const date = new Date(`${value}T00:00:00Z`)
  if (!ISO_DATE.test(value) || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw new InvalidArgumentError('expected a real date as YYYY-MM-DD')
  }
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
