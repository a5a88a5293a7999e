from _zoo import serve

serve(lambda request: None)
