//go:build !linux

package fsql

const canWriteBehind = false

func (w *writeBehind) start() bool { return false }
