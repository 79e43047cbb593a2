/** Opening a bundle's files without following symbolic links: a link could point at any file the process can read. */
import { constants } from 'node:fs'
import { type FileHandle, lstat, open } from 'node:fs/promises'

/** A file in the bundle directory that import does not read: a symbolic link, or not a regular file. */
export class BundleFileRefused extends Error {
  override name = 'BundleFileRefused'
}

const linkRefusal = (file: string): BundleFileRefused =>
  new BundleFileRefused(
    `${file} is a symbolic link; import reads only regular files in the bundle directory, never what a link ` +
      'points at: copy the file into the directory instead of linking it',
  )

/**
 * `file` when it is a regular file (its size), undefined when it is absent or is some other kind of file (a FIFO,
 * a device, a directory); throws BundleFileRefused for a symbolic link, whatever it points at.
 */
export async function bundleFileSize(file: string): Promise<number | undefined> {
  const info = await lstat(file).catch(() => undefined)
  if (info?.isSymbolicLink()) throw linkRefusal(file)
  return info?.isFile() ? info.size : undefined
}

/**
 * Opens `file` for reading with O_NOFOLLOW (a link put in its place after `bundleFileSize` looked is refused, not
 * followed) and O_NONBLOCK (a FIFO put there does not hang the open); anything but a regular file is refused.
 */
export async function openBundleFile(file: string): Promise<FileHandle> {
  let handle: FileHandle
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (err) {
    if ((err as { code?: string }).code === 'ELOOP') throw linkRefusal(file)
    throw err
  }
  const info = await handle.stat()
  if (!info.isFile()) {
    await handle.close()
    throw new BundleFileRefused(`${file} is not a regular file; import reads only regular files`)
  }
  return handle
}
