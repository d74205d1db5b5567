"""`python -m rng_service rng serve ...`: run the deck service without the rest of `mtt`."""

import sys

from rng_service.cli import main

sys.exit(main())
