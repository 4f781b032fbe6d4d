"""attachkit: sampling observers whose transport methods are plain functions attached after the classes."""
