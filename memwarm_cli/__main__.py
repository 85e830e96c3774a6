from memwarm_cli.cli.console import main

if __name__ == "__main__":
    main()
