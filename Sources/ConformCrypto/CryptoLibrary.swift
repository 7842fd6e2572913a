internal import CCrypto

/// Process-wide settings of the crypto library (OpenSSL's libcrypto, which libcurl's and the listeners' TLS share).
public enum CryptoLibrary {
    /// Initialises libcrypto without the clean-up it otherwise registers with `atexit`, which frees its global locks
    /// while the process ends: a thread still in TLS work at that moment (an I/O thread, a connection handler) then
    /// takes a freed lock and crashes the process after its work was done. The executable calls this first, before
    /// anything initialises the library; the memory is the system's once the process is gone. Returns whether the
    /// library took the setting (it is too late once anything else initialised it).
    @discardableResult
    public static func initializeWithoutExitCleanup() -> Bool {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
    }
}
