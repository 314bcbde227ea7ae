enum _Loopback {}
