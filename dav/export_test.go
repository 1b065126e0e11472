package dav

// SetRenameStarting makes f run as the file system's Rename starts, after
// webdav looked at the destination, and returns what takes it away.
func SetRenameStarting(f func()) (restore func()) {
	renameStarting = f
	return func() { renameStarting = nil }
}
