from arena.cli import main

raise SystemExit(main())
