// Replaced as the storage module lands.
