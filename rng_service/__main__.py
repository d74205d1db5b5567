"""`python -m rng_service rng serve ...`: run the deck service without the rest of `mtt`."""

import sys

from rng_service.cli import main
from rng_service.parent import exit_with_parent

exit_with_parent()
sys.exit(main())
