import GatehouseCLI

await GatehouseCommand.main()
