// Wire shapes of favourites (wire-shapes §8): bare answers.
import { z } from 'zod';

export const favorite = z.object({
  id: z.string(),
  path: z.string(),
  label: z.string().nullable(),
  icon: z.string(),
  color: z.string().nullable(),
  position: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Favorite = z.infer<typeof favorite>;
export const favorites = z.array(favorite);

export const favoriteParams = z.object({ id: z.string().min(1) });
export const addBody = z.object({
  path: z.string(),
  label: z.string().nullable().optional(),
  icon: z.string().optional(),
  color: z.string().nullable().optional(),
});
export const changeBody = z.object({
  label: z.string().nullable().optional(),
  icon: z.string().min(1).optional(),
  color: z.string().nullable().optional(),
});
export type FavoriteChange = z.infer<typeof changeBody>;
