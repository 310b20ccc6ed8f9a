/** A product as the server hands it to pages: prices in integer cents, never a float. */
export interface Product {
  id: string;
  title: string;
  priceCents: number;
  rating: number;
  image: { src: string; width: number; height: number };
}
