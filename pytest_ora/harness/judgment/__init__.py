"""One judgment as a call (the judge skill's invocation): a mode's data in, one checked result out."""
