from tripartite.cli import main

main()
