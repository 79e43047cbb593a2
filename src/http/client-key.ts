import { isIPv4, isIPv6 } from 'node:net'

/**
 * The client a connection counts against in the per-client cap: an IPv4 address as it is, an IPv6 address by its
 * /64 (one host may use any address of its /64, and privacy addresses change by the hour), an IPv4-mapped IPv6
 * address (`::ffff:10.0.0.7`, what a server on `::` sees) as its IPv4 address.
 */
export function clientKey(address: string | undefined): string {
  if (address === undefined) return 'unknown'
  const bare = address.replace(/%.*$/, '') // a zone (`fe80::1%eth0`) names the interface, not the client
  if (isIPv4(bare)) return bare
  if (!isIPv6(bare)) return bare
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare)?.[1]
  if (mapped !== undefined) return mapped
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.toLowerCase().split('::') as [string, string | undefined]
  const split = (part: string): string[] => (part === '' ? [] : part.split(':'))
  // an embedded IPv4 tail (`64:ff9b::192.0.2.1`) is two groups
  const groups = (part: string): string[] =>
    split(part).flatMap((g) => {
      if (!g.includes('.')) return [g]
      const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number)
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)]
    })
  const front = groups(head)
  const back = tail === undefined ? [] : groups(tail)
  const zeros = Array.from({ length: 8 - front.length - back.length }, () => '0')
  return [...front, ...zeros, ...back].map((g) => Number.parseInt(g, 16).toString(16))
}
