extension EncryptedFileStore {
    /// The vault file's directory: every process that opens this vault shares it.
    public var lockDirectory: String? { FileOperations.directory(of: path) }
}
