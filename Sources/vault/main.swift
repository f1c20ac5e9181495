import VaultCLI

await VaultCommand.runAndExit()
