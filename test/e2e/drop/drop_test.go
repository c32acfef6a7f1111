package drop
