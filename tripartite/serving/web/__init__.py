"""`tripartite ui`: a read-only web page that explains a prompt (why each passage, the
concepts' distributions of w, the five builders side by side), served by Starlette."""
