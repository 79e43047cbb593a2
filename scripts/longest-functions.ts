/**
 * The longest functions under a folder, by lines from the function's first line to its last, with the name it is
 * known by (its declaration, or the variable, property or method it is assigned to). A function nested in another
 * is counted on its own and also inside its parent.
 *
 *   npx tsx scripts/longest-functions.ts [--dir src] [--top 20] [--min 0]
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import ts from 'typescript'

interface FunctionLength {
  file: string
  name: string
  lines: number
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
}

function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText()
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText()
  }
  return '(anonymous)'
}

function functionLengths(file: string): FunctionLength[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const found: FunctionLength[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line
      found.push({ file, name: functionName(node as ts.FunctionLikeDeclaration), lines: last - first + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: 'src' },
    top: { type: 'string', default: '20' },
    min: { type: 'string', default: '0' },
  },
})
const longest = sourceFiles(values.dir)
  .flatMap(functionLengths)
  .filter((entry) => entry.lines >= Number(values.min))
  .sort((a, b) => b.lines - a.lines)
  .slice(0, Number(values.top))
// a reader that stops early (`| head`) is not an error
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err
})
process.stdout.write(
  longest.map(({ file, name, lines }) => `${String(lines).padStart(5)}  ${name}  ${file}\n`).join(''),
)
