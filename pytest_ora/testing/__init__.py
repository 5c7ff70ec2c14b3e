"""Testing support: a loopback reference judge speaking the providers' wire formats."""
